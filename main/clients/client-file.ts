/**
 * Reading and editing one client config file. Parsing reports the exact line and column of a
 * problem and changes nothing; edits go through jsonc-parser's `modify`, so comments, key order
 * and the file's own indentation and line endings survive.
 */
import { createHash } from 'node:crypto';
import { chmod, readFile, stat } from 'node:fs/promises';
import {
  type FormattingOptions,
  type ParseError,
  applyEdits,
  modify,
  parse,
  printParseErrorCode,
} from 'jsonc-parser';
import {
  type ClientId,
  type KeyPath,
  clientFormats,
  shapeProblem,
} from '../../app/clients/client-formats';
import type { ContractError } from '../../app/contract/contract-error';
import { type Result, err, ok } from '../../app/result';
import { writeFileAtomic } from '../config/atomic-write';

export interface ClientFile {
  path: string;
  text: string;
  doc: Record<string, unknown>;
  /** Permission bits, kept when Warden writes the file. */
  mode: number;
}

/** SHA-256 of a text, hex. */
export function sha256(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

function lineColumn(text: string, offset: number): string {
  const before = text.slice(0, offset);
  const line = before.split('\n').length;
  const column = offset - before.lastIndexOf('\n');
  return `line ${line}, column ${column}`;
}

/** Parses `text` as `client`'s file; an error names the place and changes nothing. */
export function parseClientText(
  client: ClientId,
  path: string,
  text: string,
): Result<Record<string, unknown>, ContractError> {
  const format = clientFormats[client];
  if (text.trim() === '') return ok({});
  const errors: ParseError[] = [];
  // Editors on Windows may start the file with a byte order mark; edits keep it.
  const body = text.startsWith('\uFEFF') ? text.slice(1) : text;
  let doc: unknown;
  try {
    doc = parse(body, errors, {
      allowTrailingComma: format.jsonc,
      disallowComments: !format.jsonc,
      allowEmptyContent: false,
    });
  } catch (error) {
    // jsonc-parser recurses per nesting level: a file nested many thousands deep overflows it.
    if (!(error instanceof RangeError)) throw error;
    return err({
      kind: 'invalid-input',
      message: `${path}: nested too deeply to read`,
      remedy: `fix the file (${format.label} cannot read it either), then try again; Warden changed nothing`,
    });
  }
  const first = errors[0];
  if (first) {
    return err({
      kind: 'invalid-input',
      message: `${path}: ${format.jsonc ? 'not valid JSONC' : 'not valid JSON'} at ${lineColumn(body, first.offset)} (${printParseErrorCode(first.error)})`,
      remedy: `fix the file (${format.label} cannot read it either), then try again; Warden changed nothing`,
    });
  }
  const problem = shapeProblem(client, doc);
  if (problem)
    return err({
      kind: 'invalid-input',
      message: `${path}: ${problem}`,
      remedy: `fix the file so that ${format.label} can read it, then try again; Warden changed nothing`,
    });
  return ok(doc as Record<string, unknown>);
}

/** Reads and parses a client file; `undefined` when the file does not exist. */
export async function readClientFile(
  client: ClientId,
  path: string,
): Promise<Result<ClientFile | undefined, ContractError>> {
  let text: string;
  let mode: number;
  try {
    [text, mode] = await Promise.all([
      readFile(path, 'utf8'),
      stat(path).then((s) => s.mode & 0o7777),
    ]);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return ok(undefined);
    return err({
      kind: 'internal',
      message: `${path}: cannot read (${code ?? (error as Error).message})`,
      remedy: 'check the file permissions',
    });
  }
  const doc = parseClientText(client, path, text);
  return doc.ok ? ok({ path, text, doc: doc.value, mode }) : doc;
}

/** The indentation and line endings `text` already uses. */
export function detectFormatting(text: string): FormattingOptions {
  const eol = text.includes('\r\n') ? '\r\n' : '\n';
  const indented = /\n([ \t]+)\S/.exec(text);
  const indent = indented?.[1] ?? '  ';
  return indent.startsWith('\t')
    ? { insertSpaces: false, tabSize: 1, eol }
    : { insertSpaces: true, tabSize: indent.length, eol };
}

/** Sets (or, with `undefined`, removes) each key path in `text`, keeping everything else. */
export function editText(
  text: string,
  edits: readonly { keyPath: KeyPath; value: unknown }[],
): string {
  const formattingOptions = detectFormatting(text);
  let out = text;
  for (const edit of edits) {
    out = applyEdits(out, modify(out, edit.keyPath, edit.value, { formattingOptions }));
  }
  return out;
}

/** Writes a client file atomically, keeping its permission bits. */
export async function writeClientFile(path: string, text: string, mode: number): Promise<void> {
  await writeFileAtomic(path, text);
  await chmod(path, mode);
}
