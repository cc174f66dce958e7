/**
 * `--parallel N` slots and a bounded queue beyond them: up to `parallel` requests run at once, each in a slot of its
 * own (numbered 0..parallel-1: the server runs a slot's request on that slot's engine), up to `queue` more wait in
 * arrival order, and the next one is refused at once (the server answers 503 with Retry-After) rather than queued
 * without bound.
 */
export class QueueFull extends Error {
  override name = 'QueueFull';
}

export class Slots {
  /** Free slots, the one freed longest ago first. */
  private readonly free: number[];
  private readonly waiting: Array<(slot: number) => void> = [];

  /** `ready`: whether a slot's engine can start a request at once (not restarting); free ones that can go first. */
  constructor(
    readonly parallel: number,
    readonly queue: number,
    private readonly ready: (slot: number) => boolean = () => true,
  ) {
    this.free = Array.from({ length: parallel }, (_, i) => i);
  }

  get busy(): { running: number; waiting: number } {
    return { running: this.parallel - this.free.length, waiting: this.waiting.length };
  }

  /**
   * Run `fn` in a free slot (its number passed); throws QueueFull when every slot is taken and the queue is full. A
   * request whose `signal` aborts while it waits leaves the queue (rejecting with the signal's reason) without
   * taking a slot.
   */
  async run<T>(fn: (slot: number) => Promise<T>, signal?: AbortSignal): Promise<T> {
    signal?.throwIfAborted();
    const at = this.free.findIndex((s) => this.ready(s));
    let slot = this.free.splice(Math.max(at, 0), 1)[0];
    if (slot === undefined) {
      if (this.waiting.length >= this.queue)
        throw new QueueFull(`all ${this.parallel} sequence(s) busy and ${this.queue} request(s) queued`);
      slot = await new Promise<number>((resolve, reject) => {
        const turn = (s: number) => {
          signal?.removeEventListener('abort', leave);
          resolve(s);
        };
        const leave = () => {
          const at = this.waiting.indexOf(turn);
          if (at >= 0) this.waiting.splice(at, 1);
          reject(signal!.reason);
        };
        this.waiting.push(turn);
        signal?.addEventListener('abort', leave, { once: true });
      });
    }
    try {
      return await fn(slot);
    } finally {
      const next = this.waiting.shift();
      // The slot passes straight to the next request in line.
      if (next) next(slot);
      else this.free.push(slot);
    }
  }
}
