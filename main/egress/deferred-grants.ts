/**
 * The grants of an instance whose egress started before its core (a one-session core still
 * loading): a destination that needs the user's decision waits here, not yet asked, until the
 * core's inbox takes the waiting requests over, in order; each is then asked, timed and decided
 * there like any other. A wait that its instance ends before the core takes over is refused
 * (cancelled), and so is every later one of that instance: nothing is allowed here.
 */
import type { GrantAnswer, GrantRequest, GrantRequests } from './grant-inbox';

interface Waiting {
  req: GrantRequest;
  resolve: (answer: GrantAnswer) => void;
}

/** Requests held for the core's inbox, in order, until `forwardTo` hands them over. */
export class DeferredGrants implements GrantRequests {
  private inbox: GrantRequests | undefined;
  private waiting: Waiting[] = [];
  private readonly ended = new Set<string>();

  request(req: GrantRequest): Promise<GrantAnswer> {
    if (this.inbox) return this.inbox.request(req);
    if (this.ended.has(req.instance)) return Promise.resolve({ outcome: 'cancelled' });
    return new Promise((resolve) => this.waiting.push({ req, resolve }));
  }

  /** Requests waiting here for the core's inbox. */
  waitingCount(): number {
    return this.waiting.length;
  }

  cancelInstance(instance: string): void {
    if (this.inbox) return this.inbox.cancelInstance(instance);
    this.ended.add(instance);
    const gone = this.waiting.filter((w) => w.req.instance === instance);
    this.waiting = this.waiting.filter((w) => w.req.instance !== instance);
    for (const w of gone) w.resolve({ outcome: 'cancelled' });
  }

  /** Hands the waiting requests, in order, and every later one to `inbox` (once). */
  forwardTo(inbox: GrantRequests): void {
    if (this.inbox) return;
    this.inbox = inbox;
    const waiting = this.waiting;
    this.waiting = [];
    for (const w of waiting) {
      if (this.ended.has(w.req.instance)) w.resolve({ outcome: 'cancelled' });
      else void inbox.request(w.req).then(w.resolve);
    }
  }
}
