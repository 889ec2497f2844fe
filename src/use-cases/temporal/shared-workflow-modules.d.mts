export declare function sharedWorkflowModules(workflowsPath: string): string[];
