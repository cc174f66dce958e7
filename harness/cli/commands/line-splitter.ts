/**
 * Lines of a byte or text stream exactly as node:readline gives them with `crlfDelay: Infinity` — `\n`, `\r\n` and a
 * lone `\r` end a line, a `\r\n` split across chunks is one ending, the last line needs no ending, and an incomplete
 * UTF-8 sequence at the very end is dropped — without readline's per-line events and promises, which cost batch
 * parsing a tenth of its time. Pure: chunks in, lines out.
 */
import { StringDecoder } from 'node:string_decoder';

const ENDING = /\r\n|\n|\r/g;

export class LineSplitter {
  private readonly decoder = new StringDecoder('utf8');
  private rest = '';
  /** the previous chunk ended with `\r`: a `\n` starting this one belongs to that ending */
  private sawReturn = false;

  /** The lines this chunk completes (a string chunk is taken as text, as readline does). */
  push(chunk: string | Uint8Array): string[] {
    let s = typeof chunk === 'string' ? chunk : this.decoder.write(chunk as Buffer);
    if (this.sawReturn) {
      if (s.charCodeAt(0) === 10) s = s.slice(1);
      this.sawReturn = false;
    }
    const lines: string[] = [];
    ENDING.lastIndex = 0;
    let m = ENDING.exec(s);
    if (m === null) {
      this.rest += s;
      return lines;
    }
    if (this.rest !== '') {
      s = this.rest + s;
      this.rest = '';
      ENDING.lastIndex = 0;
      m = ENDING.exec(s);
    }
    this.sawReturn = s.charCodeAt(s.length - 1) === 13;
    let start = 0;
    while (m !== null) {
      lines.push(s.slice(start, m.index));
      start = ENDING.lastIndex;
      m = ENDING.exec(s);
    }
    this.rest = s.slice(start);
    return lines;
  }

  /** The last line, when the input did not end with a line ending. */
  end(): string[] {
    const last = this.rest;
    this.rest = '';
    return last.length > 0 ? [last] : [];
  }
}
