/**
 * A refusal or failure of `data copy`, `backup` or `restore`, worded for the operator: what is
 * wrong, what was (not) changed, and what to do. The command line prints the message and exits 1.
 */
export class DataError extends Error {}
