/**
 * The audit writer thread, told apart from this process's other threads by its nice value (it
 * runs nicer than the thread that relays). Linux only: read from /proc.
 */
import { readFile, readdir } from 'node:fs/promises';
import { getPriority } from 'node:os';
import { WRITER_NICE_INCREMENT } from '../../main/audit/audit-write-thread';

/** Each thread of this process with its nice value. */
export async function threadNices(): Promise<{ tid: string; nice: number }[]> {
  return Promise.all(
    (await readdir('/proc/self/task')).map(async (tid) => {
      const stat = await readFile(`/proc/self/task/${tid}/stat`, 'utf8');
      // Field 19 of the file is the nice value; fields after the command start at 3.
      return { tid, nice: Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16]) };
    }),
  );
}

/** How many threads of this process run at the writer thread's priority. */
export async function writerThreads(): Promise<number> {
  const nice = Math.min(19, getPriority(0) + WRITER_NICE_INCREMENT);
  return (await threadNices()).filter((t) => t.nice === nice).length;
}
