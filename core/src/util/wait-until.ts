/** Resolves true when the promise settles before the deadline (epoch ms), false at the deadline. */
export async function waitUntil(promise: Promise<void>, deadline: number): Promise<boolean> {
  const ms = deadline - Date.now();
  if (ms <= 0) return false;
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), ms)));
  try {
    return await Promise.race([promise.then(() => true), timeout]);
  } finally {
    clearTimeout(timer);
  }
}
