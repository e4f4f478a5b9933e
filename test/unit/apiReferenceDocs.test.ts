/**
 * docs/api.md cannot fall behind the code: its table of endpoints lists exactly the routes the
 * service declares (and so mounts: the OpenAPI test holds the declarations equal to the router),
 * each with its key and scope; its /v3 table lists exactly the older generation's own routes; and
 * its error table lists exactly the error-code dictionary, each code with its statuses and title.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ERROR_CODES, statusesOf, type ErrorCode } from '../../src/server/core/errorCodes';
import { CURRENT_ROUTES } from '../../src/server/openapi/catalog';
import { documentedOperations } from '../../src/server/openapi/document';
import type { RouteSpec } from '../../src/server/http/routing/routeSpec';

const API_MD = readFileSync(join(__dirname, '..', '..', 'docs', 'api.md'), 'utf8');

/** The text of a `## ` section, up to the next one. */
function section(heading: string): string {
  const start = API_MD.indexOf(`\n## ${heading}\n`);
  if (start < 0) throw new Error(`docs/api.md has no section '## ${heading}'`);
  const end = API_MD.indexOf('\n## ', start + 1);
  return API_MD.slice(start, end < 0 ? undefined : end);
}

/** The cells of every table row of `text` whose first cell starts with `prefix` (code; group rows are in italics). */
function codeRows(text: string, prefix: RegExp = /^\| `/): string[][] {
  return text
    .split('\n')
    .filter((line) => prefix.test(line))
    // No cell of these tables holds a `|` of its own.
    .map((line) =>
      line
        .slice(1, -1)
        .split('|')
        .map((cell) => cell.trim()),
    );
}

/** The rows of the tables of `text` that describe a route. */
const routeRows = (text: string) => codeRows(text, /^\| `(GET|POST|DELETE) \//);

/** `` `GET /alias/list?userId=` `` -> `GET /alias/list`. */
function routeOf(cell: string): string {
  const match = /^`(GET|POST|DELETE) (\/[^`?[\s]*)/.exec(cell);
  if (!match) throw new Error(`not a route: ${cell}`);
  return `${match[1]} ${match[2]}`;
}

/** A declaration as docs/api.md writes it: `METHOD /path/{param}` (an any-method route as GET). */
const declared = (route: RouteSpec) => `${route.method === 'all' ? 'GET' : route.method.toUpperCase()} ${route.path.replace(/:(\w+)/g, '{$1}')}`;

const sorted = (values: Iterable<string>) => [...values].sort();

describe('docs/api.md', () => {
  it('lists every route of the current generation once, and nothing else', () => {
    const documented = routeRows(section('Endpoints')).map((cells) => routeOf(cells[0]));
    expect(documented.length).toBe(new Set(documented).size);
    expect(sorted(documented)).toEqual(sorted(CURRENT_ROUTES.map(declared)));
  });

  it("gives every route the key it is called with and, for an app's key, the scope it needs", () => {
    const rows = new Map(routeRows(section('Endpoints')).map((cells) => [routeOf(cells[0]), cells]));
    const wrong: string[] = [];
    for (const route of CURRENT_ROUTES) {
      const [, key, scope] = rows.get(declared(route)) ?? [];
      const keyRight = route.auth ? key === route.auth : !['ApiKey', 'ApiSecret', 'ManagementKey'].includes(key ?? '');
      const scopeRight = scope === (route.scope ? `\`${route.scope}\`` : '');
      if (!keyRight || !scopeRight) wrong.push(`${declared(route)}: documented ${key} ${scope || '(no scope)'}, declared ${route.auth ?? 'none'} ${route.scope ?? '(no scope)'}`);
    }
    expect(wrong).toEqual([]);
  });

  it("lists the older generation's own routes in its /v3 table", () => {
    const own = documentedOperations()
      .filter((operation) => operation.legacy && !CURRENT_ROUTES.includes(operation.route))
      .map((operation) => declared(operation.route));
    const documented = routeRows(section('The older generation (/v3)')).map((cells) => routeOf(cells[0]));
    expect(sorted(documented)).toEqual(sorted(own));
  });

  it('lists every code of the error-code dictionary once, with its statuses and title, and nothing else', () => {
    const rows = codeRows(section('Errors'));
    const codes = rows.map((cells) => cells[0].replace(/`/g, ''));
    expect(codes.length).toBe(new Set(codes).size);
    expect(sorted(codes)).toEqual(sorted(Object.keys(ERROR_CODES)));
    const unescape = (text: string) => text.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&');
    const wrong: string[] = [];
    for (const [code, status, title] of rows.map((cells) => [cells[0].replace(/`/g, ''), cells[1], cells[2]])) {
      const entry = ERROR_CODES[code as ErrorCode];
      if (!entry) continue;
      const statuses = (status.match(/\b\d{3}\b/g) ?? []).map(Number);
      if (statuses.join() !== statusesOf(code as ErrorCode).join()) wrong.push(`${code}: documented ${status}, answered with ${statusesOf(code as ErrorCode).join(' or ')}`);
      if (unescape(title) !== entry.title) wrong.push(`${code}: documented title "${title}", answered "${entry.title}"`);
    }
    expect(wrong).toEqual([]);
  });
});
