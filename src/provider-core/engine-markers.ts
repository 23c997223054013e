/**
 * The engine's wire markers the providers understand, free of the SDK and of zod, so the native
 * provider's start-up can load them without the contract.
 */

/**
 * The engine's placeholder for a value not known until apply (`pulumi.runtime.unknownValue`),
 * repeated here so this module stays free of the SDK.
 */
export const UNKNOWN = "04da6b54-80e4-46f7-96ec-b56ff0331ba9";

/** Property the dynamic provider host keeps the serialized provider under. */
export const PROVIDER_KEY = "__provider";
