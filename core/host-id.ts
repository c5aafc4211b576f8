/**
 * A host id (DESIGN.md §1, issue 33): letters, digits, `.`, `_`, `-`; at most
 * 100; not only dots (`.` and `..` would name directories in the worker
 * registry's file names and read as paths in task queue names).
 */
export const HOST_ID_PATTERN = /^(?!\.+$)[A-Za-z0-9._-]{1,100}$/;
