import type { StepCondition } from './unit';

/** Whether a step's condition holds for the rows kept so far (a missing row never does). */
export declare function stepConditionHolds(condition: StepCondition, kept: Record<string, Record<string, unknown> | undefined>): boolean;
