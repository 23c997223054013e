export * from "./api";
export * from "./fields";
export * from "./validation";
