import { formList } from './formList';

describe('formList', () => {
  it('is a list whether the field came once, several times or not at all', () => {
    expect(formList('login')).toEqual(['login']);
    expect(formList(['register', 'login'])).toEqual(['register', 'login']);
    expect(formList(undefined)).toEqual([]);
    expect(formList({ a: 1 })).toEqual({ a: 1 });
  });
});
