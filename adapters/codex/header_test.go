package codex_test

const header = `{"type":"thread.started","thread_id":"t"}`
