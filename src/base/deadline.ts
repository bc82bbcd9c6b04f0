/**
 * Settles as `work` settles, or rejects with `onTimeout()` once `ms` have passed, whichever
 * comes first: one budget for a request that may wait on several calls in a row, each with a
 * timeout of its own. The work is not cancelled; it runs on, and what it fetches (keys, a
 * review, a list) serves the requests that come next. The timer never keeps the process alive.
 */
export async function withinDeadline<T> (work: Promise<T>, ms: number, onTimeout: () => Error): Promise<T> {
  let timer: NodeJS.Timeout | undefined
  const deadline = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => { reject(onTimeout()) }, ms)
    timer.unref()
  })
  try {
    return await Promise.race([work, deadline])
  } finally {
    clearTimeout(timer)
  }
}
