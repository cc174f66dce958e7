// The part of Python's `ast` module this emulation builds (CPython 3.11 node names and fields).
import type { PyValue } from './value.ts';

export type BinOpName =
  | 'Add'
  | 'Sub'
  | 'Mult'
  | 'MatMult'
  | 'Div'
  | 'Mod'
  | 'Pow'
  | 'LShift'
  | 'RShift'
  | 'BitOr'
  | 'BitXor'
  | 'BitAnd'
  | 'FloorDiv';
export type UnaryOpName = 'Invert' | 'Not' | 'UAdd' | 'USub';
export type CmpOpName = 'Eq' | 'NotEq' | 'Lt' | 'LtE' | 'Gt' | 'GtE' | 'Is' | 'IsNot' | 'In' | 'NotIn';

export interface Keyword {
  arg: string | null;
  value: Node;
}

export interface Comprehension {
  target: Node;
  iter: Node;
  ifs: Node[];
  isAsync: boolean;
}

export type Node =
  | { k: 'Constant'; value: PyValue; kind?: 'u' }
  | { k: 'JoinedStr' }
  | { k: 'Name'; id: string; raw?: string }
  | { k: 'Attribute'; value: Node; attr: string }
  | { k: 'Subscript'; value: Node; slice: Node }
  | { k: 'Slice'; lower?: Node; upper?: Node; step?: Node }
  | { k: 'Starred'; value: Node }
  | { k: 'Call'; func: Node; args: Node[]; keywords: Keyword[] }
  | { k: 'List' | 'Tuple' | 'Set'; elts: Node[] }
  | { k: 'Dict'; keys: Array<Node | null>; values: Node[] }
  | { k: 'UnaryOp'; op: UnaryOpName; operand: Node }
  | { k: 'BinOp'; op: BinOpName; left: Node; right: Node }
  | { k: 'BoolOp'; op: 'And' | 'Or'; values: Node[] }
  | { k: 'Compare'; left: Node; ops: CmpOpName[]; comparators: Node[] }
  | { k: 'IfExp'; test: Node; body: Node; orelse: Node }
  | { k: 'Lambda'; body: Node }
  | { k: 'NamedExpr'; target: Node; value: Node }
  | { k: 'Await'; value: Node }
  | { k: 'Yield'; value?: Node }
  | { k: 'YieldFrom'; value: Node }
  | { k: 'ListComp' | 'SetComp' | 'GeneratorExp'; elt: Node; generators: Comprehension[] }
  | { k: 'DictComp'; key: Node; value: Node; generators: Comprehension[] };
