export * from "./api";
export * from "./fields";
export * from "./schemas";
export * from "./validation";
export * from "./wire";
