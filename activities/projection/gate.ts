/**
 * A shared/exclusive gate for one SQLite connection. better-sqlite3 gives a
 * process one connection, and Prisma's driver adapter only serializes
 * transactions against each other: a plain statement issued while an
 * interactive transaction is open would run inside it (and roll back with
 * it). The store runs every plain statement `shared` and every transaction
 * `exclusive`, so a transaction holds the connection alone. Waiting
 * exclusive work goes first (no starvation by a stream of plain writes).
 */
export class ConnectionGate {
  private active = 0;
  private exclusiveHeld = false;
  private readonly waiting: { exclusive: boolean; wake: () => void }[] = [];

  /** Runs `fn` alongside other shared work, never inside a transaction. */
  async shared<T>(fn: () => Promise<T>): Promise<T> {
    await this.enter(false);
    try {
      return await fn();
    } finally {
      this.leave(false);
    }
  }

  /**
   * Runs the synchronous `fn` — which may open and close its own
   * transaction within the call — at once when no transaction holds or
   * waits for the connection, else as soon as shared work may run. Being
   * synchronous, nothing else runs on the connection meanwhile.
   */
  async sync<T>(fn: () => T): Promise<T> {
    if (this.waiting.length === 0 && this.free(false)) return fn();
    await this.enter(false);
    try {
      return fn();
    } finally {
      this.leave(false);
    }
  }

  /** Runs `fn` with the connection to itself (no other shared or exclusive work meanwhile). */
  async exclusive<T>(fn: () => Promise<T>): Promise<T> {
    await this.enter(true);
    try {
      return await fn();
    } finally {
      this.leave(true);
    }
  }

  private free(exclusive: boolean): boolean {
    if (this.exclusiveHeld) return false;
    return exclusive ? this.active === 0 : !this.waiting.some((w) => w.exclusive);
  }

  private enter(exclusive: boolean): Promise<void> {
    if (this.waiting.length === 0 && this.free(exclusive)) {
      this.take(exclusive);
      return Promise.resolve();
    }
    return new Promise((wake) => this.waiting.push({ exclusive, wake }));
  }

  private take(exclusive: boolean): void {
    if (exclusive) this.exclusiveHeld = true;
    else this.active += 1;
  }

  private leave(exclusive: boolean): void {
    if (exclusive) this.exclusiveHeld = false;
    else this.active -= 1;
    // Wake waiters in order: one exclusive alone, or every shared waiter up to the next exclusive one.
    while (this.waiting.length > 0) {
      const next = this.waiting[0]!;
      if (this.exclusiveHeld || (next.exclusive && this.active > 0)) return;
      this.waiting.shift();
      this.take(next.exclusive);
      next.wake();
      if (next.exclusive) return;
    }
  }
}
