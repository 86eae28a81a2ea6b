/**
 * Reading and editing one client config file. Parsing reports the exact line and column of a
 * problem and changes nothing; edits go through jsonc-parser's `modify`, so comments, key order
 * and the file's own indentation and line endings survive.
 */
import { createHash } from 'node:crypto';
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
import { realAtomicWriteOps, writeFileAtomic } from '../config/atomic-write';
import { readRegularFile, regularFileProblemText } from '../config/regular-file';

export interface ClientFile {
  path: string;
  text: string;
  doc: Record<string, unknown>;
  /** Permission bits, kept when Warden writes the file (narrowed when it holds a token). */
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

/**
 * Why a client file cannot be used: the ContractError (its message names the path), and the
 * problem alone, worded to follow the file's name ("is not a regular file"), for lists that show
 * the path already.
 */
export type ClientFileError = ContractError & { problem: string };

function fileError(
  kind: ContractError['kind'],
  path: string,
  problem: string,
  remedy: string,
): ClientFileError {
  return { kind, message: `${path} ${problem}`, remedy, problem };
}

/** Parses `text` as `client`'s file; an error names the place and changes nothing. */
export function parseClientText(
  client: ClientId,
  path: string,
  text: string,
): Result<Record<string, unknown>, ClientFileError> {
  const format = clientFormats[client];
  if (text.trim() === '') return ok({});
  const errors: ParseError[] = [];
  // Editors on Windows may start the file with a byte order mark; edits keep it.
  const body = text.startsWith('\uFEFF') ? text.slice(1) : text;
  const fixIt = `fix the file (${format.label} cannot read it either), then try again; Warden changed nothing`;
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
    return err(fileError('invalid-input', path, 'is nested too deeply to read', fixIt));
  }
  const first = errors[0];
  if (first) {
    const where = `${lineColumn(body, first.offset)} (${printParseErrorCode(first.error)})`;
    const problem = `is not valid ${format.jsonc ? 'JSONC' : 'JSON'} at ${where}`;
    return err(fileError('invalid-input', path, problem, fixIt));
  }
  const problem = shapeProblem(client, doc);
  if (problem)
    return err(
      fileError(
        'invalid-input',
        path,
        problem,
        `fix the file so that ${format.label} can read it, then try again; Warden changed nothing`,
      ),
    );
  return ok(doc as Record<string, unknown>);
}

/**
 * A client file over this is not one a client wrote for its servers: Warden does not read it. (The
 * largest configs seen hold a few hundred servers in some tens of KB.)
 */
export const MAX_CLIENT_FILE_BYTES = 8 * 1024 * 1024;

/**
 * Reads and parses a client file; `undefined` when the file does not exist. Only a regular file is
 * read: a FIFO or a device put in its place (by a server allowed to write to a project's folder,
 * say) is refused at once rather than holding the core or filling its memory.
 */
export async function readClientFile(
  client: ClientId,
  path: string,
): Promise<Result<ClientFile | undefined, ClientFileError>> {
  const file = await readRegularFile(path, MAX_CLIENT_FILE_BYTES);
  if (!file.ok) {
    if (file.error.kind === 'absent') return ok(undefined);
    const problem = regularFileProblemText(file.error, MAX_CLIENT_FILE_BYTES);
    const remedy =
      file.error.kind === 'unreadable'
        ? 'check the file permissions'
        : `replace it with ${clientFormats[client].label}'s own config file, or remove it; Warden changed nothing`;
    return err(fileError('internal', path, problem, remedy));
  }
  const { text, mode } = file.value;
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

const octal = (mode: number) => (mode & 0o777).toString(8).padStart(4, '0');

/**
 * Writes a client file atomically, keeping its permission bits; but a file that holds a Warden
 * gateway token (`holdsToken`) is the user's alone: group and others lose all access before the
 * new text takes the file's place, so the token is never readable by them (a home folder is
 * often 0755, and editors make these files 0644). Answers a note for the user when the mode was
 * narrowed.
 */
/** The mode a client file holding a gateway token gets from `mode`: no access for others. */
export function tokenFileMode(mode: number): number {
  return process.platform === 'win32' ? mode & 0o7777 : mode & 0o7777 & ~0o077;
}

export async function writeClientFile(
  path: string,
  text: string,
  mode: number,
  holdsToken: boolean,
): Promise<string | undefined> {
  const kept = mode & 0o7777;
  const next = holdsToken ? tokenFileMode(kept) : kept;
  await writeFileAtomic(path, text, realAtomicWriteOps, next);
  if (next === kept) return undefined;
  return (
    `${path} was mode ${octal(kept)}, open to other users; it is ${octal(next)} now, ` +
    `since it holds Warden's gateway token`
  );
}
