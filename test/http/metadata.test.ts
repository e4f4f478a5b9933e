/**
 * The FIDO metadata: the `/mds/*` listings, and how a BLOB gets in use. A BLOB is verified before
 * use (under the bundled FIDO roots and the operator's MDS_TRUSTED_ROOTS_FILE); one that fails,
 * or is not newer, is refused with a log line and the one in use stays. MDS_URL is a real HTTP
 * server on loopback; the clock that decides when a BLOB is due is injected.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import pino from 'pino';
import { DAY_MS, utcDateOf, utcDayOf } from '../../src/server/core/utcDay';
import { expectProblem } from '../support/http';
import { ICON, KEYS, metadataEnv, testBlob, testEntries, writeBlob } from '../support/metadata';
import { signBlob, blobPayload, createTestPki, tamperBlob, type TestPki } from '../support/testPki';
import { MANAGEMENT_KEY, providers, startTestService, warnIfPostgresSkipped, type TestService } from '../support/testService';

warnIfPostgresSkipped();

let pki: TestPki;
beforeAll(() => {
  pki = createTestPki();
});
afterAll(() => pki.remove());

const mds = (svc: TestService, path: string) => svc.http.get(path).set('ManagementKey', MANAGEMENT_KEY);
const names = async (svc: TestService, query = '') => ((await mds(svc, `/mds/entries${query}`)).body as { name: string }[]).map((entry) => entry.name);

describe.each(providers())('the /mds listings on %s', (provider) => {
  let svc: TestService;
  beforeAll(async () => {
    svc = await startTestService(provider, metadataEnv(pki, writeBlob(pki, `listings-${provider}.jwt`, testBlob(pki))), { metadataRefreshIntervalMs: 0 });
  });
  afterAll(() => svc?.close());

  it('lists every attestation type and certification status of the FIDO2 entries, sorted, to the management key only', async () => {
    expect((await mds(svc, '/mds/attestation-types')).body).toEqual(['attca', 'basic_full', 'basic_surrogate']);
    expect((await mds(svc, '/api/mds/certification-statuses')).body).toEqual(['ATTESTATION_KEY_COMPROMISE', 'FIDO_CERTIFIED_L1', 'FIDO_CERTIFIED_L2', 'NOT_FIDO_CERTIFIED', 'REVOKED']);
    for (const path of ['/mds/attestation-types', '/mds/certification-statuses', '/mds/entries']) {
      expectProblem(await svc.http.get(path), 401, 'ManagementKey');
      expectProblem(await svc.http.get(path).set('ManagementKey', 'a-wrong-management-key'), 401, 'ManagementKey');
    }
  });

  it('lists the authenticators by name with their AAGUID, statuses, attestation types and icon', async () => {
    const res = await mds(svc, '/mds/entries');
    expect(res.status).toBe(200);
    expect(res.body).toEqual([
      { aaGuid: KEYS.other, name: 'Another Key', certificationStatuses: ['FIDO_CERTIFIED_L2'], attestationTypes: ['attca', 'basic_full'], icon: null },
      { aaGuid: KEYS.compromised, name: 'Broken Key', certificationStatuses: ['ATTESTATION_KEY_COMPROMISE', 'FIDO_CERTIFIED_L1'], attestationTypes: ['basic_full'], icon: null },
      { aaGuid: KEYS.trusted, name: 'Test Security Key', certificationStatuses: ['FIDO_CERTIFIED_L1'], attestationTypes: ['basic_full'], icon: ICON },
      { aaGuid: KEYS.revoked, name: 'Withdrawn Key', certificationStatuses: ['NOT_FIDO_CERTIFIED', 'REVOKED'], attestationTypes: ['basic_surrogate'], icon: null },
    ]);
  });

  it('filters by any of the attestation types and any of the statuses given, repeated or comma-separated', async () => {
    expect(await names(svc, '?attestationTypes=attca')).toEqual(['Another Key']);
    expect(await names(svc, '?attestationTypes=attca&attestationTypes=basic_surrogate')).toEqual(['Another Key', 'Withdrawn Key']);
    expect(await names(svc, '?AttestationTypes=attca,basic_surrogate')).toEqual(['Another Key', 'Withdrawn Key']);
    expect(await names(svc, '?certificationStatuses=REVOKED&certificationStatuses=FIDO_CERTIFIED_L2')).toEqual(['Another Key', 'Withdrawn Key']);
    expect(await names(svc, '?attestationTypes=basic_full&certificationStatuses=FIDO_CERTIFIED_L1')).toEqual(['Broken Key', 'Test Security Key']);
    expect(await names(svc, '?attestationTypes=ecdaa')).toEqual([]);
    expect(await names(svc, '?attestationTypes=&certificationStatuses=')).toHaveLength(4);
    const bad = await mds(svc, '/mds/entries?attestationTypes=basic-full');
    expectProblem(bad, 400, 'validation_failed');
    expect(Object.keys(bad.body.errors)).toEqual(['attestationTypes.0']);
  });
});

describe('without FIDO metadata', () => {
  let svc: TestService;
  beforeAll(async () => {
    svc = await startTestService('sqlite', {}, { metadataRefreshIntervalMs: 0 });
  });
  afterAll(() => svc?.close());

  it('answers empty listings, and no authenticator can be put on a list', async () => {
    for (const path of ['/mds/attestation-types', '/mds/certification-statuses', '/mds/entries']) expect((await mds(svc, path)).body).toEqual([]);
    const app = await svc.createApp({ plan: 'enterprise' });
    const res = await svc.http.post('/authenticators/add').set('ApiSecret', app.apiSecret).send({ aaGuids: [KEYS.trusted], isAllowed: true });
    expectProblem(res, 400, 'unknown_authenticator');
    expect(res.body.detail).toContain('No FIDO metadata is loaded');
  });
});

/** A service whose log lines are kept, for the refusals. */
async function serviceWithLog(env: Record<string, string>, now: () => number = Date.now, extra: object = {}) {
  const lines: { msg: string; source?: string; reason?: string; no?: number; inUse?: number; url?: string }[] = [];
  const logger = pino({ level: 'info' }, { write: (line: string) => void lines.push(JSON.parse(line)) });
  const svc = await startTestService('sqlite', env, { logger, now, metadataRefreshIntervalMs: 0, ...extra });
  const logged = (msg: string) => lines.filter((line) => line.msg.startsWith(msg));
  return { svc, lines, logged };
}

describe('a BLOB from MDS_BLOB_FILE', () => {
  it('is used only once it verifies; a tampered, foreign or older one is refused with a log line and the one in use stays', async () => {
    const file = writeBlob(pki, 'swapped.jwt', tamperBlob(testBlob(pki, { no: 1 }), (payload) => void (payload.no = 2)));
    const { svc, logged } = await serviceWithLog(metadataEnv(pki, file));
    try {
      // Tampered from the start: no metadata at all, and the reason is logged.
      expect(await names(svc)).toEqual([]);
      expect(logged('metadata BLOB refused')).toEqual([expect.objectContaining({ source: 'MDS_BLOB_FILE', reason: 'BLOB signature could not be verified' })]);

      writeFileSync(file, testBlob(pki, { no: 5 }));
      await svc.services.metadata.refresh();
      expect(await names(svc)).toHaveLength(4);
      expect(logged('metadata BLOB loaded')).toEqual([expect.objectContaining({ source: 'MDS_BLOB_FILE', no: 5 })]);

      const oneMore = [...testEntries(), { aaguid: KEYS.unknown, description: 'Newcomer Key' }];
      const refusals: [string, string][] = [
        [tamperBlob(testBlob(pki, { no: 6, entries: oneMore }), (payload) => void (payload.nextUpdate = '2100-01-01')), 'BLOB signature could not be verified'],
        [signBlob(pki.strangerSigner, blobPayload(pki, { no: 7, nextUpdate: '2099-01-01', entries: oneMore })), 'BLOB certificate path could not be validated'],
        ['this is not a BLOB', 'it is not a JWT (three base64url parts separated by dots)'],
        [`${Buffer.from('{"alg":').toString('base64url')}.e30.c2ln`, 'its header carries no certificate chain (x5c)'],
      ];
      for (const [blob, reason] of refusals) {
        writeFileSync(file, blob);
        await svc.services.metadata.refresh();
        expect(logged('metadata BLOB refused').at(-1)).toEqual(expect.objectContaining({ source: 'MDS_BLOB_FILE', reason }));
        expect(await names(svc)).not.toContain('Newcomer Key');
      }
      writeFileSync(file, testBlob(pki, { no: 4, entries: oneMore }));
      await svc.services.metadata.refresh();
      expect(logged('metadata BLOB refused: it is older')).toEqual([expect.objectContaining({ no: 4, inUse: 5 })]);
      expect(await names(svc)).not.toContain('Newcomer Key');

      writeFileSync(file, testBlob(pki, { no: 6, entries: oneMore }));
      await svc.services.metadata.refresh();
      expect(await names(svc)).toContain('Newcomer Key');
      // An unchanged file is not read again.
      const loaded = logged('metadata BLOB loaded').length;
      await svc.services.metadata.refresh();
      expect(logged('metadata BLOB')).toHaveLength(loaded + refusals.length + 2);
    } finally {
      await svc.close();
    }
  });

  it("is refused when signed under a root the operator did not name in MDS_TRUSTED_ROOTS_FILE", async () => {
    const { svc, logged } = await serviceWithLog({ MDS_BLOB_FILE: writeBlob(pki, 'unrooted.jwt', testBlob(pki)) });
    try {
      expect(await names(svc)).toEqual([]);
      expect(logged('metadata BLOB refused')).toEqual([expect.objectContaining({ reason: 'BLOB certificate path could not be validated' })]);
    } finally {
      await svc.close();
    }
  });

  it('that cannot be read is logged once, and no metadata is in use', async () => {
    const { svc, logged } = await serviceWithLog(metadataEnv(pki, join(pki.dir, 'no-such-blob.jwt')));
    try {
      await svc.services.metadata.refresh();
      expect(await names(svc)).toEqual([]);
      expect(logged('MDS_BLOB_FILE cannot be read')).toEqual([expect.objectContaining({ code: 'ENOENT' })]);
    } finally {
      await svc.close();
    }
  });
});

describe('a BLOB from MDS_URL', () => {
  let server: Server;
  let url: string;
  /** What the server answers next: a BLOB, or a status code. */
  let serving: string | number;
  let downloads = 0;
  beforeAll(async () => {
    server = createServer((req, res) => {
      downloads++;
      if (typeof serving === 'number') res.writeHead(serving).end('unavailable');
      else res.writeHead(200, { 'Content-Type': 'application/octet-stream' }).end(serving);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/mds?token=not-for-the-log`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('is downloaded when due, kept on disk, refused when it fails verification, and read from disk when the server is down', async () => {
    const start = Date.UTC(2031, 4, 10, 9, 0);
    let now = start;
    const nextUpdate = (days: number) => utcDateOf(utcDayOf(start) + days);
    const copy = join(pki.dir, 'downloaded', 'mds.jwt');
    const env = { MDS_URL: url, MDS_BLOB_FILE: copy, MDS_TRUSTED_ROOTS_FILE: pki.metadataRootFile };
    const first = testBlob(pki, { no: 10, nextUpdate: nextUpdate(2) });
    serving = first;
    const { svc, logged } = await serviceWithLog(env, () => now);
    try {
      // Nothing on disk yet: the first refresh downloads, and the copy is kept.
      expect(await names(svc)).toEqual([]);
      await svc.services.metadata.refresh();
      expect({ downloads, names: await names(svc) }).toEqual({ downloads: 1, names: ['Another Key', 'Broken Key', 'Test Security Key', 'Withdrawn Key'] });
      expect(readFileSync(copy, 'utf8')).toBe(first);

      // Not due before its nextUpdate.
      now = start + DAY_MS;
      await svc.services.metadata.refresh();
      expect(downloads).toBe(1);

      // Due: a tampered download is refused, and the BLOB in use (and on disk) stays.
      now = start + 2 * DAY_MS;
      const oneMore = [...testEntries(), { aaguid: KEYS.unknown, description: 'Newcomer Key' }];
      serving = tamperBlob(testBlob(pki, { no: 11, nextUpdate: nextUpdate(9), entries: oneMore }), (payload) => void (payload.no = 12));
      await svc.services.metadata.refresh();
      expect(downloads).toBe(2);
      expect(logged('metadata BLOB refused')).toEqual([expect.objectContaining({ source: 'MDS_URL', reason: 'BLOB signature could not be verified' })]);
      expect(await names(svc)).not.toContain('Newcomer Key');
      expect(readFileSync(copy, 'utf8')).toBe(first);

      // Still due: the next good one is taken and kept.
      const second = testBlob(pki, { no: 11, nextUpdate: nextUpdate(9), entries: oneMore });
      serving = second;
      await svc.services.metadata.refresh();
      expect(await names(svc)).toContain('Newcomer Key');
      expect(readFileSync(copy, 'utf8')).toBe(second);

      // Past its nextUpdate with the server down: logged, nothing changes.
      now = start + 10 * DAY_MS;
      serving = 503;
      await svc.services.metadata.refresh();
      expect(logged('metadata BLOB download failed')).toEqual([expect.objectContaining({ reason: 'the server answered 503', url: url.split('?')[0] })]);
      expect(await names(svc)).toContain('Newcomer Key');
    } finally {
      await svc.close();
    }

    // A restart while the server is down starts from the copy on disk.
    const restarted = await serviceWithLog(env, () => now);
    try {
      expect(await names(restarted.svc)).toContain('Newcomer Key');
      expect(restarted.logged('metadata BLOB loaded')).toEqual([expect.objectContaining({ source: 'MDS_BLOB_FILE', no: 11 })]);
    } finally {
      await restarted.svc.close();
    }
  });
});
