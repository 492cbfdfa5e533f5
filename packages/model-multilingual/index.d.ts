/** Absolute path of the directory holding model.bin and model.json. */
export declare const modelPath: string;
