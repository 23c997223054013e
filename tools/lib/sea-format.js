// @ts-check
/** What the ELF and PE halves of tools/lib/sea-inject.js share: the blob's name, the error, alignment. */
"use strict";

/** The name Node.js looks the blob up by: an ELF note's, or a PE resource's of type RT_RCDATA. */
const RESOURCE = "NODE_SEA_BLOB";

/** An injection that cannot be made, saying why. */
class SeaInjectError extends Error {
  /** @param {string} message */
  constructor(message) {
    super(message);
    this.name = "SeaInjectError";
  }
}

/** `value` rounded up to a multiple of `alignment`. @param {number} value @param {number} alignment */
const alignUp = (value, alignment) => Math.ceil(value / alignment) * alignment;

module.exports = { RESOURCE, SeaInjectError, alignUp };
