// B2: Express 5 JSON echo: parse the body, send it back.
import express from 'express';

const app = express();
app.use(express.json());
app.post('/echo', (req, res) => {
  res.json(req.body);
});
app.listen(Number(process.env.PORT), '127.0.0.1');
