/**
 * Desktop shell requests from the page (system notification, badge, folder picker, save dialog),
 * validated where they enter the main process, and served through injected Electron functions so
 * that the logic is tested without the Electron binary.
 */
import { writeFile } from 'node:fs/promises';
import { z } from 'zod';
import type { Reply } from '../../app/contract/reply';

export const shellRequestSchema = z.discriminatedUnion('kind', [
  z.object({
    kind: z.literal('notify'),
    title: z.string().max(200),
    body: z.string().max(1000),
    tag: z.string().max(200),
  }),
  z.object({ kind: z.literal('setBadgeCount'), count: z.number().int().min(0).max(100_000) }),
  z.object({ kind: z.literal('pickFolder') }),
  z.object({
    kind: z.literal('saveFile'),
    suggestedName: z.string().max(255),
    text: z.string().max(512 * 1024 * 1024),
  }),
]);

/** The Electron functions the requests need (dialog, Notification, app). */
export interface ShellPlatform {
  notify(notice: { title: string; body: string }, onClick: () => void): void;
  setBadgeCount(count: number): void;
  pickFolder(): Promise<string | undefined>;
  pickSaveTarget(suggestedName: string): Promise<string | undefined>;
}

/** Serves one request; an invalid one is refused with an Error naming the problem. */
export async function serveShellRequest(
  raw: unknown,
  platform: ShellPlatform,
  onNotificationClick: (tag: string) => void,
): Promise<string | undefined> {
  const request = shellRequestSchema.parse(raw);
  switch (request.kind) {
    case 'notify':
      platform.notify({ title: request.title, body: request.body }, () =>
        onNotificationClick(request.tag),
      );
      return undefined;
    case 'setBadgeCount':
      platform.setBadgeCount(request.count);
      return undefined;
    case 'pickFolder':
      return platform.pickFolder();
    case 'saveFile': {
      // Only a name is suggested; where it goes is the user's choice in the system dialog.
      const target = await platform.pickSaveTarget(request.suggestedName.replace(/[/\\]/g, '_'));
      if (target === undefined) return undefined;
      await writeFile(target, request.text, { mode: 0o600 });
      return target;
    }
  }
}

/** The `warden:shell` handler: serves one request, or refuses a malformed one as invalid input. */
export function createShellHandler(
  platform: ShellPlatform,
  onNotificationClick: (tag: string) => void,
): (raw: unknown) => Promise<Reply<string | undefined>> {
  return async (raw) => {
    const parsed = shellRequestSchema.safeParse(raw);
    if (!parsed.success) {
      return { ok: false, error: { kind: 'invalid-input', message: 'malformed shell request' } };
    }
    return { ok: true, value: await serveShellRequest(parsed.data, platform, onNotificationClick) };
  };
}
