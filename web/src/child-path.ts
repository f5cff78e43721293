/**
 * A flattened path's child: `parent.key`, or `parent["key"]` for a key holding '.', '[' or ']', which a framework
 * reads as one key, never as a path (DeepSpeed's {"zero_optimization.stage": 3} sets no ZeRO stage). The engine's
 * rule (engine/include/membudget/base/text.hpp childPath), for what the page flattens itself.
 */
export const childPath = (path: string, key: string): string => (/[.[\]]/.test(key) ? `${path}["${key}"]` : path ? `${path}.${key}` : key);
