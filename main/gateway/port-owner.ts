/**
 * Who holds a TCP port on this machine, so that a taken gateway port can be reported with its
 * owner: the user from the kernel's socket table (/proc/net/tcp, tcp6), and the process when this
 * user may see its file descriptors. Linux only; elsewhere the owner is unknown.
 */
import { readFile, readdir, readlink } from 'node:fs/promises';

/** The owner of a listening socket, as far as it can be found. */
export interface PortOwner {
  uid: number;
  user?: string;
  pid?: number;
  /** The executable's path, or where it cannot be read the process's own name for itself. */
  command?: string;
}

/** The listening sockets on `port` in a /proc/net/tcp table: their uid and inode. */
export function listenersInTable(table: string, port: number): { uid: number; inode: string }[] {
  const found: { uid: number; inode: string }[] = [];
  for (const line of table.split('\n').slice(1)) {
    const f = line.trim().split(/\s+/);
    const local = f[1];
    if (!local || f[3] !== '0A') continue; // 0A: LISTEN
    const hexPort = local.slice(local.lastIndexOf(':') + 1);
    if (Number.parseInt(hexPort, 16) !== port) continue;
    found.push({ uid: Number(f[7]), inode: f[9] ?? '' });
  }
  return found;
}

/** The owner of the socket listening on `port`, or undefined when none is found. */
export async function findPortOwner(port: number): Promise<PortOwner | undefined> {
  if (process.platform !== 'linux') return undefined;
  let listener: { uid: number; inode: string } | undefined;
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    const text = await readFile(table, 'utf8').catch(() => '');
    listener ??= listenersInTable(text, port)[0];
  }
  if (!listener) return undefined;
  const owner: PortOwner = { uid: listener.uid };
  const user = await userName(listener.uid);
  if (user !== undefined) owner.user = user;
  const pid = await pidOfSocket(listener.inode);
  if (pid !== undefined) {
    owner.pid = pid;
    const command = await commandOf(pid);
    if (command) owner.command = command;
  }
  return owner;
}

/**
 * The program a process runs: its executable's path where this user may read it (as it may the
 * descriptors that found the process), as the kernel gives it (` (deleted)` after a binary removed
 * since), else the name its main thread gives itself (`comm`), which says less: from Node 24 on,
 * every Node process calls its main thread `MainThread`.
 */
async function commandOf(pid: number): Promise<string | undefined> {
  const exe = await readlink(`/proc/${pid}/exe`).catch(() => '');
  if (exe.startsWith('/')) return exe;
  const comm = (await readFile(`/proc/${pid}/comm`, 'utf8').catch(() => '')).trim();
  return comm || undefined;
}

/**
 * One line naming the owner, e.g. `a process of user wtest (uid 1001), pid 42
 * (/usr/bin/python3.11)`.
 */
export function describePortOwner(owner: PortOwner | undefined): string {
  if (!owner) return 'another program (its owner could not be found)';
  const who = `a process of user ${owner.user ?? '?'} (uid ${owner.uid})`;
  if (owner.pid === undefined) return `${who}; its process is not visible to this user`;
  return `${who}, pid ${owner.pid}${owner.command ? ` (${owner.command})` : ''}`;
}

async function userName(uid: number): Promise<string | undefined> {
  const passwd = await readFile('/etc/passwd', 'utf8').catch(() => '');
  for (const line of passwd.split('\n')) {
    const [name, , id] = line.split(':');
    if (name && Number(id) === uid) return name;
  }
  return undefined;
}

async function pidOfSocket(inode: string): Promise<number | undefined> {
  if (!/^\d+$/.test(inode) || inode === '0') return undefined;
  const wanted = `socket:[${inode}]`;
  for (const pid of await readdir('/proc').catch(() => [])) {
    if (!/^\d+$/.test(pid)) continue;
    const fds = await readdir(`/proc/${pid}/fd`).catch(() => []);
    for (const fd of fds) {
      if ((await readlink(`/proc/${pid}/fd/${fd}`).catch(() => '')) === wanted) return Number(pid);
    }
  }
  return undefined;
}
