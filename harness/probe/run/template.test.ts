import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../../../tests/helpers/temp-dirs.ts';
import { prepareTemplate } from './template.ts';

describe('prepareTemplate', () => {
  it('a template file that cannot be read is one line naming the file and the reason', () => {
    const gone = join(tempDir('probe-template'), 'gone.jinja');
    expect(() => prepareTemplate(gone, new Date('2026-01-15T09:30:00Z'))).toThrow(
      `${gone}: cannot read the chat template (ENOENT)`,
    );
  });
});
