import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { providerNames, readProviderNamesFile } from './providerNames';

const GOOGLE = 'ea9b8d66-4d01-1d21-3ce4-b6b48cb575d4';
const ICLOUD = 'fbfc3007-154e-4ecc-8c0b-6e020557d7bd';
const UNKNOWN = '0f0e0d0c-0b0a-0908-0706-050403020100';

function fileWith(content: string): string {
  const file = join(mkdtempSync(join(tmpdir(), 'pwl-aaguids-')), 'names.json');
  writeFileSync(file, content);
  return file;
}

describe('provider names', () => {
  it('names the providers people use from the bundled list, in any case', () => {
    const names = providerNames();
    expect(names(GOOGLE)).toBe('Google Password Manager');
    expect(names(ICLOUD.toUpperCase())).toBe('Apple Passwords');
    expect(names(UNKNOWN)).toBeUndefined();
    expect(names('00000000-0000-0000-0000-000000000000')).toBeUndefined();
  });

  it("lets an operator's file in the community list's format override and extend it", () => {
    const file = fileWith(JSON.stringify({ [GOOGLE]: { name: 'Google (ours)', icon_dark: 'data:,', icon_light: 'data:,' }, [UNKNOWN.toUpperCase()]: { name: 'In-house key' } }));
    const names = providerNames(file);
    expect([names(GOOGLE), names(UNKNOWN), names(ICLOUD)]).toEqual(['Google (ours)', 'In-house key', 'Apple Passwords']);
  });

  it('skips entries that are no AAGUID or have no name', () => {
    expect([...readProviderNamesFile(fileWith(JSON.stringify({ 'not-a-guid': { name: 'x' }, [UNKNOWN]: { name: '' }, [GOOGLE]: 'Plain string' })))]).toEqual([[GOOGLE, 'Plain string']]);
  });

  it.each([
    ['not JSON', '{'],
    ['an array', '[]'],
  ])('refuses a file that is %s, naming it', (_label, content) => {
    const file = fileWith(content);
    expect(() => providerNames(file)).toThrow(file);
  });
});
