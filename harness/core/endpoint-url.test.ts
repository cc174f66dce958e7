import { describe, expect, it } from 'vitest';
import { serverRoot } from './endpoint-url.ts';

describe('serverRoot', () => {
  it('drops the trailing slashes and then one final /v1', () => {
    expect(serverRoot('http://127.0.0.1:8080/v1')).toBe('http://127.0.0.1:8080');
    expect(serverRoot('http://127.0.0.1:8080/v1/')).toBe('http://127.0.0.1:8080');
    expect(serverRoot('http://h/proxy/v1//')).toBe('http://h/proxy');
    expect(serverRoot('http://h:1/')).toBe('http://h:1');
  });
  it('keeps a path that only looks like /v1', () => {
    expect(serverRoot('http://h/v10')).toBe('http://h/v10');
    expect(serverRoot('http://h/v1/chat')).toBe('http://h/v1/chat');
    expect(serverRoot('http://h/api/v1/v1')).toBe('http://h/api/v1');
  });
});
