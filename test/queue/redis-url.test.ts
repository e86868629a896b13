import { describe, expect, it } from 'vitest';
import { UsageError } from '../../src/errors.js';
import { parseQueueUrl } from '../../src/queue/redis-url.js';

describe('parseQueueUrl', () => {
  it.each([
    ['redis://127.0.0.1:6379', 'redis://127.0.0.1:6379'],
    ['redis://queue.internal', 'redis://queue.internal'],
    ['redis://queue.internal:6380/3', 'redis://queue.internal:6380/3'],
    ['rediss://user:s3cret@queue.internal:6380/0', 'rediss://user:***@queue.internal:6380/0'],
    ['redis://:s3cret@10.0.0.5', 'redis://:***@10.0.0.5'],
  ])('accepts %s (shown as %s)', (url, display) => {
    expect(parseQueueUrl(url)).toEqual({ url, display });
  });

  it.each([
    ['localhost:6379', 'must be a redis:// or rediss:// URL, got localhost://'],
    ['not a url', 'is not a URL'],
    ['http://localhost:6379', 'must be a redis:// or rediss:// URL, got http://'],
    ['redis://localhost:99999', 'is not a URL'],
    ['redis://localhost:6379/db', 'the database after / must be a number, got "db"'],
    ['redis://localhost:6379/0?x=1', 'query strings and fragments are not supported'],
    ['redis://', 'names no host'],
    ['redis://:p%zz@localhost:6379', 'the password is not valid percent-encoding'],
    ['redis://u%e0:x@localhost:6379', 'the user is not valid percent-encoding'],
  ])('refuses %s: %s', (url, words) => {
    let error: unknown;
    try {
      parseQueueUrl(url);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(UsageError);
    expect((error as UsageError).exitCode).toBe(64);
    expect((error as Error).message).toContain(words);
    expect((error as Error).message).not.toContain('\n');
  });

  it('never shows the password, even one that is not valid percent-encoding', () => {
    expect(() => parseQueueUrl('redis://:p%zzsecret@localhost:6379')).toThrow(/^--queue redis:\/\/:\*\*\*@localhost:6379: the password/);
  });

  it('never shows the password, even of a URL it cannot parse', () => {
    expect(() => parseQueueUrl('redis://:s3cret@ho st:6379')).toThrow('--queue "redis://:***@ho st:6379" is not a URL');
  });
});
