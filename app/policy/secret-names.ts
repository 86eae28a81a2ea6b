/** Which environment variable names say their value is a secret (redacted, never shown back). */

const SECRET_NAME =
  /TOKEN|SECRET|PASSWORD|PASSWD|PASS|API_?KEY|PRIVATE|CREDENTIAL|AUTH|_KEY$|^KEY/i;

/** True when a variable's name says its value is a secret. */
export function looksSecret(name: string): boolean {
  return SECRET_NAME.test(name);
}
