// Loaded into a spawned Kazma with NODE_OPTIONS=--import (no hook in Kazma's own code): on SIGUSR2 it
// makes the kind of bug the process-level policy is for — a promise rejected with nobody to handle it
// (KAZMA_TEST_FAILURE=rejection, the default) or an exception thrown from a timer (=exception).
process.on('SIGUSR2', () => {
  const error = new Error('an unexpected failure made by the test');
  if (process.env.KAZMA_TEST_FAILURE === 'exception') {
    setImmediate(() => {
      throw error;
    });
  } else {
    void Promise.reject(error);
  }
});
