/**
 * `--parallel N` sequences and a bounded queue beyond them: up to `parallel` requests generate at once, up to `queue`
 * more wait in arrival order, and the next one is refused at once (the server answers 503 with Retry-After) rather
 * than queued without bound.
 */
export class QueueFull extends Error {
  override name = 'QueueFull';
}

export class Slots {
  private running = 0;
  private readonly waiting: Array<() => void> = [];

  constructor(
    readonly parallel: number,
    readonly queue: number,
  ) {}

  get busy(): { running: number; waiting: number } {
    return { running: this.running, waiting: this.waiting.length };
  }

  /**
   * Run `fn` in a slot; throws QueueFull when every slot is taken and the queue is full. A request whose `signal`
   * aborts while it waits leaves the queue (rejecting with the signal's reason) without taking a slot.
   */
  async run<T>(fn: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    signal?.throwIfAborted();
    if (this.running >= this.parallel) {
      if (this.waiting.length >= this.queue)
        throw new QueueFull(`all ${this.parallel} sequence(s) busy and ${this.queue} request(s) queued`);
      await new Promise<void>((resolve, reject) => {
        const turn = () => {
          signal?.removeEventListener('abort', leave);
          resolve();
        };
        const leave = () => {
          const at = this.waiting.indexOf(turn);
          if (at >= 0) this.waiting.splice(at, 1);
          reject(signal!.reason);
        };
        this.waiting.push(turn);
        signal?.addEventListener('abort', leave, { once: true });
      });
    } else this.running++;
    try {
      return await fn();
    } finally {
      const next = this.waiting.shift();
      // The slot passes straight to the next request in line (running stays the same).
      if (next) next();
      else this.running--;
    }
  }
}
