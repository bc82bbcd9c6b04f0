import { ConfigError } from '../../config/errors.ts'
import { readFeatureStoreFileAsWritten } from '../../config/feature-store-file.ts'
import { readTextFile } from '../../config/read-text-file.ts'
import { parseYamlDocuments } from '../../config/yaml-document.ts'
import { renderFeatureStore } from '../../operator/render.ts'
import { yamlText } from '../../operator/yaml-text.ts'
import { parseCommandArgs, reportUsage, subcommand } from '../args.ts'
import { EXIT, UsageError, type CliCommand } from '../io.ts'
import { usageLines } from '../help-text.ts'

const HELP = `${usageLines('operator render', [
  '--resource <featurestore.yaml>', '[--secret <secret.yaml>]...', '[--base <feature_store.yaml>]', '[--feast-compatible-rbac]', '[--json]'
])}

Turns a FeatureStore resource (<group>/v1) into what the Feast operator would deploy:
the auth section of the servers' and the clients' feature_store.yaml, the servers'
feature_store_yaml_base64, and the RBAC objects of the chosen mode.

  --resource <path>   the FeatureStore resource (YAML)
  --secret <path>     Secret(s) that spec.authz.oidc.secretRef may name; a file may hold
                      several YAML documents; repeatable
  --base <path>       a feature_store.yaml to complete (its project and auth are replaced)
  --feast-compatible-rbac
                      kubernetes mode: emit the Feast operator's RBAC objects, which also
                      grant cluster-wide reads (namespaces, cluster roles and bindings)
                      that feast-authz never makes; default: only what feast-authz needs
  --json              print JSON: {"server","client","feature_store_yaml_base64","rbac",
                      "clientPod"}

The server section (and feature_store_yaml_base64) carries the Secret's credentials;
nothing else does. Warnings go to stderr. Exit 0 on success, 2 when the resource, a
Secret or the options are invalid (the exit codes of every command: feast-authz --help).
`

export const run: CliCommand = async (argv, io) => {
  let values: { resource?: string | undefined, secret?: string[] | undefined, base?: string | undefined, json?: boolean | undefined, 'feast-compatible-rbac'?: boolean | undefined, help?: boolean | undefined }
  try {
    // The subcommand is the one argument that is not an option, as for `registry show`: an extra
    // one is counted from the command's name, and options may come before `render`.
    const parsed = parseCommandArgs(argv, { resource: { type: 'string' }, secret: { type: 'string', multiple: true }, base: { type: 'string' }, 'feast-compatible-rbac': { type: 'boolean' }, json: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } }, 1)
    values = parsed.values
    if (values.help === true) { io.stdout(HELP); return EXIT.ok }
    subcommand(parsed.positionals[0], ['render'])
    if (values.resource === undefined) throw new UsageError('--resource is required')
  } catch (error) {
    if (!(error instanceof UsageError)) throw error
    return reportUsage(io, 'operator', error)
  }

  let rendered
  try {
    const secrets = (values.secret ?? []).flatMap(readSecretFile)
    const base = values.base === undefined ? undefined : readFeatureStoreFileAsWritten(values.base).data
    rendered = renderFeatureStore(values.resource, { secrets, feastCompatibleRbac: values['feast-compatible-rbac'] === true, ...(base === undefined ? {} : { base }) })
  } catch (error) {
    if (error instanceof ConfigError) { io.stderr(`feast-authz operator render: ${error.message}\n`); return EXIT.usage }
    throw error
  }
  for (const warning of rendered.warnings) io.stderr(`feast-authz operator render: warning: ${warning}\n`)
  const { server, client, feature_store_yaml_base64: base64, rbac, clientPod } = rendered
  if (values.json === true) {
    io.stdout(`${JSON.stringify({ server, client, feature_store_yaml_base64: base64, rbac, clientPod }, null, 2)}\n`)
    return EXIT.ok
  }
  // Said only where true: a kubernetes or no_auth section carries nothing secret.
  const credentials = server.client_secret !== undefined || server.password !== undefined ? ' (carries the credentials of the Secret)' : ''
  io.stdout([
    `# Server feature_store.yaml, auth section${credentials}`,
    yamlText({ auth: server }).trimEnd(),
    '',
    '# Client feature_store.yaml, auth section',
    yamlText({ auth: client }).trimEnd(),
    '',
    '# feature_store_yaml_base64: the whole server feature_store.yaml, base64',
    base64,
    '',
    ...(clientPod.volumes.length === 0
      ? []
      : ['# Client pod spec: the projected, audience-bound token the client section reads', yamlText(clientPod).trimEnd(), '']),
    `# RBAC objects (${rbac.length === 0 ? 'none needed' : 'kubectl apply -f'})`,
    ...rbac.map((object) => `---\n${yamlText(object).trimEnd()}`),
    ''
  ].join('\n'))
  return EXIT.ok
}

const MAX_SECRET_FILE_BYTES = 4 * 1024 * 1024

/** Every YAML document of a Secret file, as parsed objects. */
function readSecretFile (path: string): Array<{ object: Record<string, unknown>, source: string }> {
  const text = readTextFile(path, {
    // A Kubernetes Secret holds at most 1 MiB; a file of several is still small.
    maxBytes: MAX_SECRET_FILE_BYTES,
    kind: 'a Secret file',
    cannotRead: 'cannot read the Secret file',
    error: (message, source, cause) => new ConfigError(message, { source }, cause)
  })
  // No alias has a use in a Secret: none is expanded.
  const documents = parseYamlDocuments(text, { maxAliases: 0, error: (message, position) => new ConfigError(message, { source: path, ...position }) })
  return documents.flatMap(({ data: object }) => {
    if (object === null || object === undefined) return []
    if (typeof object !== 'object' || Array.isArray(object)) throw new ConfigError('expected each document to be a Secret (a mapping)', { source: path })
    return [{ object: object as Record<string, unknown>, source: path }]
  })
}
