// The public surface of serve/ (docs/serve.md): the server of `ralph serve`, and the transcript
// reading `ralph logs` shares with the page.
export { startServer, type ServeOptions, type RunningServer } from './server.js';
export { RunFollower, newestIteration, type TranscriptPiece } from './run-follower.js';
export { TranscriptReader, toolLabel, isStreamFormat, type TranscriptItem } from './transcript-items.js';
