export * from "./api";
export * from "./validation";
