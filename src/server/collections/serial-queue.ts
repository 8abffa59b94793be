/**
 * The one queue that every change to what a replica holds goes through: applying the change log, swapping a loaded
 * collection in, saving snapshots. One task at a time, in order, is what keeps a snapshot's version right: a
 * snapshot is tagged with the version the store had once every change up to it was applied, which holds only if no
 * change is half-applied while it is taken (src/server/collections/snapshot-schedule.ts).
 *
 * A failed task is reported and the queue goes on: the next task runs as if it had succeeded.
 *
 * @example
 * const queue = new SerialQueue();
 * await queue.settle(() => catchUp(), (error) => log(error)); // never rejects
 * const loaded = await queue.run(() => swapIn(next), (error) => log(error)); // rejects with the task's error
 */
export class SerialQueue {
  private tail: Promise<void> = Promise.resolve();

  /**
   * Runs `task` after every task queued before it; the answer is the task's (a failure rejects it too, after
   * `report` saw it on the queue's side).
   */
  run<T>(task: () => Promise<T>, report: (error: unknown) => void): Promise<T> {
    const done = this.tail.then(task);
    this.tail = done.then(() => undefined, report);
    return done;
  }

  /** Like `run`, for tasks whose caller only waits: settles once the task ran (or its failure was reported). */
  settle(task: () => Promise<unknown>, report: (error: unknown) => void): Promise<void> {
    this.tail = this.tail.then(task).then(() => undefined).catch(report);
    return this.tail;
  }

  /** Settles once every task queued so far has run. */
  idle(): Promise<void> {
    return this.tail;
  }
}
