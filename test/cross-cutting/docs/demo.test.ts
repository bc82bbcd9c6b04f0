/** `npm start --once`: the demo runs end to end (real OpenID provider, reference server) and prints its table. */
import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { test } from 'node:test'

const ROOT = fileURLToPath(new URL('../../../', import.meta.url))

test('the demo prints tokens, curl lines and what each user gets on each route, then exits 0', async () => {
  const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', 'demo/start.ts', '--once'], { cwd: ROOT, timeout: 60_000 })
  assert.match(stdout, /export READER_TOKEN=ey[\w-]+\.[\w-]+\.[\w-]+/)
  assert.match(stdout, /export WRITER_TOKEN=ey/)
  assert.match(stdout, /curl -s http:\/\/127\.0\.0\.1:\d+\/push -H "Authorization: Bearer \$WRITER_TOKEN"/)
  const table = Object.fromEntries(stdout.split('\n')
    .map((line) => /^\s+(GET|POST)\s+(\S+)\s+(.*)$/.exec(line))
    .filter((match) => match !== null)
    .map((match) => [`${match[1]} ${match[2]}`, (match[3] ?? '').replace(/\(\d+ views\)/g, '').trim().split(/\s+/)]))
  assert.deepEqual(table, {
    // columns: no token, reader, writer, no roles
    'GET /health': ['200', '200', '200', '200'],
    'GET /api/v1/feature_views': ['401', '200', '200', '200'],
    'POST /get-online-features': ['401', '200', '200', '403'],
    'POST /push': ['401', '403', '200', '403'],
    'POST /write-to-online-store': ['401', '403', '200', '403'],
    'POST /materialize-incremental': ['401', '403', '200', '403']
  })
  assert.match(stdout, /GET\s+\/api\/v1\/feature_views\s+401\s+200 \(3 views\)\s+200 \(4 views\)\s+200 \(0 views\)/)
})
