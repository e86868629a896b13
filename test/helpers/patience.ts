// How long a test waits for something that should happen soon. It only guards against a hang, so
// it is generous: on a machine loaded 8 times over, what takes a second idle takes many. Tests
// never assert how fast something was (bench/ carries timing); they wait for the event.
export const PATIENCE_MS = 120_000;
