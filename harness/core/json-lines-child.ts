// A long-lived child process answering one JSON line per JSON line in — how the differential tests talk to
// reference Python (the literal emulation's oracle, BFCL's checker), so thousands of cases run in seconds.
import type { ResultPromise } from 'execa';

/** How such a child is started: pipes, stderr passed through, a fixed hash seed so Python's answers repeat. */
export const JSON_LINES_CHILD = {
  stdin: 'pipe',
  stdout: 'pipe',
  stderr: 'inherit',
  buffer: false,
  env: { PYTHONHASHSEED: '0' },
} as const;

export class JsonLinesChild {
  private buffer = '';
  private waiting: Array<{ resolve: (line: string) => void; reject: (err: Error) => void }> = [];
  private dead: Error | undefined;

  protected constructor(
    private readonly child: ResultPromise<typeof JSON_LINES_CHILD>,
    name: string,
  ) {
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => {
      this.buffer += chunk;
      for (let nl = this.buffer.indexOf('\n'); nl !== -1; nl = this.buffer.indexOf('\n')) {
        const line = this.buffer.slice(0, nl);
        this.buffer = this.buffer.slice(nl + 1);
        this.waiting.shift()?.resolve(line);
      }
    });
    child.catch((err: Error) => this.fail(err));
    child.then(() => this.fail(new Error(`${name} exited`)));
  }

  private fail(err: Error): void {
    this.dead ??= err;
    for (const w of this.waiting.splice(0)) w.reject(err);
  }

  /** Send one request and wait for its answer line. */
  ask<T = unknown>(req: unknown): Promise<T> {
    if (this.dead) return Promise.reject(this.dead);
    return new Promise<string>((resolve, reject) => {
      this.waiting.push({ resolve, reject });
      this.child.stdin.write(`${JSON.stringify(req)}\n`);
    }).then((line) => JSON.parse(line) as T);
  }

  async close(): Promise<void> {
    this.child.stdin.end();
    await this.child.catch(() => undefined);
  }
}
