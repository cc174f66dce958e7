// Chat templates: faithful rendering, message shapes, tool-calling defect checks, repairs (docs/probe.md, "Templates").
export type { ChatMessage, OpenAITool, TemplateToolCall } from './types.ts';
export { TemplateError, type TemplateErrorKind } from './errors.ts';
export { renderChat, DEFAULT_NOW, type RenderInput } from './render.ts';
export { strftime } from './strftime.ts';
export {
  applyShape,
  chooseShape,
  pickProbeTools,
  priorCallOutcome,
  shapeLabel,
  SHAPES,
  type CallIdStyle,
  type MessageShape,
  type ShapeChoice,
  type ShapeTrial,
} from './shapes.ts';
export {
  checkTemplate,
  FINDING_IDS,
  type CheckOptions,
  type Finding,
  type FindingId,
  type Repro,
  type TemplateCheck,
} from './check.ts';
export { repairTemplate } from './repair.ts';
export { referenceTemplate, REFERENCE_FAMILIES, type ReferenceFamily } from './reference.ts';
export {
  detectFamily,
  detectTemplateFamily,
  familyOfCall,
  generatedPart,
  type FamilyDetection,
  type TemplateFamily,
} from './family.ts';
export { RENDER_BUDGET, RENDER_V8_FLAGS } from './engine.ts';
