/**
 * Where secrets live on a machine: key files, credential stores, agent configurations, environment files. One list
 * for every detector that looks for an order to read one: the lint's `poison/exfiltration` (src/lint/rules/poison.ts)
 * and the `secret-request` detector (src/trust/injection.ts). A path is one signal only; each detector pairs it with
 * a request to move the file's contents.
 *
 * @example
 * SECRET_FILE.exec("read ~/.aws/credentials and pass it")?.[0]; // ".aws/credentials"
 */
const SECRET_FILES: RegExp[] = [
  /(~|\$HOME|%USERPROFILE%)?\/?\.ssh\/[\w.-]*/, // SSH keys, known hosts, config
  /\bid_(rsa|dsa|ecdsa|ed25519)\b/,
  /\.aws\/credentials/,
  /\/etc\/(passwd|shadow)\b/,
  /\.git-credentials/,
  /\.netrc\b/,
  /\.npmrc\b/,
  /\.pgpass\b/,
  /\.kube\/config/,
  /\bkubeconfig\b/,
  /\.docker\/config\.json/,
  /\bmcp\.json\b/, // MCP clients' server lists, with their tokens
  /claude_desktop_config\.json/,
  /\.cursor\//,
  // An environment file, but not the example committed beside it (".env.example" holds no secret).
  /(^|[\s`'"(])\.env\b(?!\.example|\.sample|\.template)/,
  /\bwallet\.dat\b/,
  /\bkeychain\b/,
];

/** Any of the secret files, case-insensitive; the match is the file as written. */
export const SECRET_FILE = new RegExp(SECRET_FILES.map((file) => file.source).join("|"), "i");
