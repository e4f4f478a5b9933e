import { playgroundKeyOf, type ListedKey } from './playgroundKey';

const key = (id: string, fields: Partial<ListedKey> = {}): ListedKey => ({ apiKey: `demoapp:public:${'0'.repeat(28)}${id}`, kind: 'public', scopes: ['login', 'register'], isLocked: false, ...fields });

describe('playgroundKeyOf', () => {
  it('picks the first unlocked public key that may register and sign in', () => {
    expect(playgroundKeyOf([key('aaaa', { isLocked: true }), key('bbbb'), key('cccc')])).toBe(key('bbbb').apiKey);
  });

  it('counts a key without scopes as having every public scope, and skips one that lacks login or register', () => {
    expect(playgroundKeyOf([key('aaaa', { scopes: ['register'] }), key('bbbb', { scopes: [] })])).toBe(key('bbbb').apiKey);
    expect(playgroundKeyOf([key('aaaa', { scopes: ['login'] })])).toBeUndefined();
  });

  it('never picks a secret, or a public key whose value is not stored (masked)', () => {
    expect(playgroundKeyOf([{ apiKey: `demoapp:secret:${'*'.repeat(28)}aaaa`, kind: 'secret', scopes: [], isLocked: false }])).toBeUndefined();
    expect(playgroundKeyOf([key('aaaa', { apiKey: `demoapp:secret:${'*'.repeat(28)}aaaa` })])).toBeUndefined();
  });

  it('answers none for an app whose public keys are all locked', () => {
    expect(playgroundKeyOf([key('aaaa', { isLocked: true }), key('bbbb', { isLocked: true })])).toBeUndefined();
  });
});
