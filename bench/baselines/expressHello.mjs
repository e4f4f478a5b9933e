// B1: Express 5 hello (run with NODE_ENV=production).
import express from 'express';

const app = express();
app.get('/', (req, res) => {
  res.send('hello');
});
app.listen(Number(process.env.PORT), '127.0.0.1');
