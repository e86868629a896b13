export { SignalParser, createSignalParser, type ParserEvent, type SignalParserOptions, type IgnoredWhy } from './parser.js';
export { parseObservation, type ObservationRecord } from './observation.js';
export { classifySignal, type LineVerdict } from './grammar.js';
export { decide, type Decision, type Weighed } from './decide.js';
