/** The CLI's streams on a real process: stdout, stderr, and questions only at a terminal. */
import type { CliIo } from './cli-io';

/**
 * The CliIo of this process; `ask` exists only when a person is at a terminal. A command that
 * never asks passes `asks: false`, and stdin is then left untouched until the command reads it.
 */
export function processIo({ asks = true }: { asks?: boolean } = {}): CliIo {
  return {
    stdout: (text: string) => void process.stdout.write(text),
    stderr: (text: string) => void process.stderr.write(text),
    // Only a person at a terminal is asked; piped input never answers a question for them.
    ...(asks && process.stdin.isTTY && process.stderr.isTTY
      ? {
          ask: async (question: string) => {
            const { createInterface } = await import('node:readline/promises');
            const rl = createInterface({ input: process.stdin, output: process.stderr });
            try {
              return await rl.question(question);
            } finally {
              rl.close();
            }
          },
        }
      : {}),
  };
}
