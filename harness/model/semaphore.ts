/** A counting semaphore: the process-wide limit on requests in flight to the endpoint. */
export class Semaphore {
  private active = 0;
  private readonly waiting: Array<() => void> = [];
  constructor(private readonly limit: number) {
    if (!(limit >= 1)) throw new Error(`Semaphore limit must be >= 1 (got ${limit})`);
  }
  async run<T>(fn: () => Promise<T>): Promise<T> {
    await this.acquire();
    try {
      return await fn();
    } finally {
      this.release();
    }
  }
  private acquire(): Promise<void> {
    if (this.active < this.limit) {
      this.active++;
      return Promise.resolve();
    }
    return new Promise((resolve) => this.waiting.push(resolve));
  }
  private release(): void {
    const next = this.waiting.shift();
    if (next)
      next(); // hand the slot over directly; `active` stays the same
    else this.active--;
  }
  get inFlight(): number {
    return this.active;
  }
}
