export declare const defaultHeapCapMb: number;
export declare const workflowThreadPreload: string;
export declare function serviceNodeOptions(nodeOptions?: string): string;
