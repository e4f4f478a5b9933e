import type supertest from 'supertest';

/**
 * Makes each userId a user of the app (an alias of its own, not hashed), so that deleting it is a
 * deletion a `user.deleted` webhook reports: a userId the app never had sends none.
 */
export async function givenUsers(http: ReturnType<typeof supertest>, apiSecret: string, userIds: string[]): Promise<void> {
  for (const userId of userIds) {
    const res = await http.post('/alias').set('ApiSecret', apiSecret).send({ userId, aliases: [`${userId}@users.example.com`], hashing: false });
    if (res.status !== 204) throw new Error(`giving ${userId} an alias failed: ${res.status} ${JSON.stringify(res.body)}`);
  }
}
