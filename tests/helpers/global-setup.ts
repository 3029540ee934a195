// Placeholder replaced by the storage helper: prepares shared test fixtures once per run.
export default async function setup(): Promise<void> {}
