// Compares prisma/schema.prisma (read by Prisma's own WASM schema parser) with a migrated database, because
// `prisma migrate diff` needs the native schema engine that cannot be downloaded here (DESIGN §8).
// Covers what the migrations must get right: tables, columns (type, nullability, default), enums, indexes,
// foreign keys. CHECK constraints and triggers are ours alone and are tested on their own.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { get_dmmf } from '@prisma/prisma-schema-wasm';
import pg from 'pg';

interface DmmfField {
  name: string;
  dbName?: string | null;
  kind: 'scalar' | 'enum' | 'object' | 'unsupported';
  type: string;
  isList: boolean;
  isRequired: boolean;
  hasDefaultValue: boolean;
  nativeType?: [string, string[]] | null;
  relationFromFields?: string[];
  relationToFields?: string[];
  relationOnDelete?: string;
}
interface DmmfModel {
  name: string;
  dbName: string | null;
  fields: DmmfField[];
}
interface DmmfIndex {
  model: string;
  type: 'id' | 'unique' | 'normal' | 'fulltext';
  fields: { name: string }[];
}
interface Dmmf {
  datamodel: { models: DmmfModel[]; enums: { name: string; values: { name: string }[] }[]; indexes: DmmfIndex[] };
}

export function readPrismaDatamodel(
  schemaPath = join(import.meta.dirname, '..', '..', 'prisma', 'schema.prisma'),
): Dmmf['datamodel'] {
  const schema = readFileSync(schemaPath, 'utf8');
  return (JSON.parse(get_dmmf(JSON.stringify({ prismaSchema: [['schema.prisma', schema]] }))) as Dmmf).datamodel;
}

const scalarTypes: Record<string, string> = {
  String: 'text',
  Int: 'int4',
  BigInt: 'int8',
  Boolean: 'bool',
  DateTime: 'timestamp',
  Json: 'jsonb',
  Float: 'float8',
  Decimal: 'numeric',
  Bytes: 'bytea',
};
const nativeTypes: Record<string, string> = {
  Timestamptz: 'timestamptz',
  Timestamp: 'timestamp',
  Date: 'date',
  Text: 'text',
  Uuid: 'uuid',
};
const onDeleteSql: Record<string, string> = {
  Cascade: 'CASCADE',
  Restrict: 'RESTRICT',
  SetNull: 'SET NULL',
  SetDefault: 'SET DEFAULT',
  NoAction: '',
};

const tableOf = (model: DmmfModel) => model.dbName ?? model.name;
const columnOf = (field: DmmfField) => field.dbName ?? field.name;

function expectedUdt(field: DmmfField): string {
  const base =
    field.kind === 'enum'
      ? field.type
      : ((field.nativeType ? nativeTypes[field.nativeType[0]] : undefined) ?? scalarTypes[field.type] ?? field.type);
  return field.isList ? `_${base}` : base;
}

interface DatabaseShape {
  columns: {
    table_name: string;
    column_name: string;
    udt_name: string;
    is_nullable: 'YES' | 'NO';
    column_default: string | null;
  }[];
  enums: { typname: string; labels: string[] }[];
  indexes: { table_name: string; unique: boolean; primary: boolean; columns: string[] }[];
  foreignKeys: { table_name: string; definition: string }[];
}

export async function introspect(databaseUrl: string): Promise<DatabaseShape> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const columns = await client.query(`
      SELECT table_name, column_name, udt_name, is_nullable, column_default FROM information_schema.columns
      WHERE table_schema = 'public' AND table_name <> '_prisma_migrations'`);
    const enums = await client.query(`
      SELECT t.typname::text AS typname, array_agg(e.enumlabel::text ORDER BY e.enumsortorder) AS labels
      FROM pg_type t JOIN pg_enum e ON e.enumtypid = t.oid JOIN pg_namespace n ON n.oid = t.typnamespace
      WHERE n.nspname = 'public' GROUP BY t.typname`);
    const indexes = await client.query(`
      SELECT t.relname AS table_name, ix.indisunique AS unique, ix.indisprimary AS primary,
             array_agg(a.attname::text ORDER BY k.ord) AS columns
      FROM pg_index ix
      JOIN pg_class t ON t.oid = ix.indrelid JOIN pg_namespace n ON n.oid = t.relnamespace
      CROSS JOIN LATERAL unnest(ix.indkey) WITH ORDINALITY AS k(attnum, ord)
      JOIN pg_attribute a ON a.attrelid = t.oid AND a.attnum = k.attnum
      WHERE n.nspname = 'public' AND t.relname <> '_prisma_migrations'
      GROUP BY t.relname, ix.indexrelid, ix.indisunique, ix.indisprimary`);
    const foreignKeys = await client.query(`
      SELECT c.conrelid::regclass::text AS table_name, pg_get_constraintdef(c.oid) AS definition
      FROM pg_constraint c JOIN pg_namespace n ON n.oid = c.connamespace
      WHERE c.contype = 'f' AND n.nspname = 'public'`);
    return { columns: columns.rows, enums: enums.rows, indexes: indexes.rows, foreignKeys: foreignKeys.rows };
  } finally {
    await client.end();
  }
}

/** Every difference between the datamodel and the database, as readable lines; empty when they agree. */
export function describeDrift(datamodel: Dmmf['datamodel'], database: DatabaseShape): string[] {
  const drift: string[] = [];
  const modelTables = new Set(datamodel.models.map(tableOf));
  const databaseTables = new Set(database.columns.map((column) => column.table_name));
  for (const table of databaseTables) if (!modelTables.has(table)) drift.push(`table ${table} is not in schema.prisma`);

  for (const model of datamodel.models) {
    const table = tableOf(model);
    if (!databaseTables.has(table)) {
      drift.push(`table ${table} is missing`);
      continue;
    }
    const columns = new Map(
      database.columns.filter((column) => column.table_name === table).map((column) => [column.column_name, column]),
    );
    const fields = model.fields.filter((field) => field.kind === 'scalar' || field.kind === 'enum');
    for (const field of fields) {
      const where = `${table}.${columnOf(field)}`;
      const column = columns.get(columnOf(field));
      if (!column) {
        drift.push(`column ${where} is missing`);
        continue;
      }
      if (column.udt_name !== expectedUdt(field))
        drift.push(`column ${where} is ${column.udt_name}, schema says ${expectedUdt(field)}`);
      // Prisma leaves list columns nullable in PostgreSQL.
      if (!field.isList && (column.is_nullable === 'NO') !== field.isRequired) {
        drift.push(
          `column ${where} is ${column.is_nullable === 'NO' ? 'NOT NULL' : 'nullable'}, schema says ${field.isRequired ? 'required' : 'optional'}`,
        );
      }
      if ((column.column_default !== null) !== field.hasDefaultValue) {
        drift.push(
          `column ${where} ${column.column_default === null ? 'has no default' : `has default ${column.column_default}`}, schema says ${field.hasDefaultValue ? 'default' : 'none'}`,
        );
      }
    }
    const fieldColumns = new Set(fields.map(columnOf));
    for (const name of columns.keys())
      if (!fieldColumns.has(name)) drift.push(`column ${table}.${name} is not in schema.prisma`);
  }

  for (const enumType of datamodel.enums) {
    const actual = database.enums.find((candidate) => candidate.typname === enumType.name);
    const expected = enumType.values.map((value) => value.name);
    if (!actual) drift.push(`enum ${enumType.name} is missing`);
    else if (actual.labels.join(',') !== expected.join(','))
      drift.push(`enum ${enumType.name} has [${actual.labels}], schema says [${expected}]`);
  }
  for (const actual of database.enums) {
    if (!datamodel.enums.some((enumType) => enumType.name === actual.typname))
      drift.push(`enum ${actual.typname} is not in schema.prisma`);
  }

  const indexKey = (table: string, kind: string, columns: string[]) =>
    `${kind} index on ${table}(${columns.join(', ')})`;
  const fieldColumn = (model: DmmfModel, name: string) => columnOf(model.fields.find((field) => field.name === name)!);
  const expectedIndexes = new Set(
    datamodel.indexes.map((index) => {
      const model = datamodel.models.find((candidate) => candidate.name === index.model)!;
      const kind = index.type === 'id' ? 'primary' : index.type === 'unique' ? 'unique' : 'plain';
      return indexKey(
        tableOf(model),
        kind,
        index.fields.map((field) => fieldColumn(model, field.name)),
      );
    }),
  );
  const actualIndexes = new Set(
    database.indexes.map((index) =>
      indexKey(index.table_name, index.primary ? 'primary' : index.unique ? 'unique' : 'plain', index.columns),
    ),
  );
  for (const index of expectedIndexes) if (!actualIndexes.has(index)) drift.push(`${index} is missing`);
  for (const index of actualIndexes) if (!expectedIndexes.has(index)) drift.push(`${index} is not in schema.prisma`);

  const expectedForeignKeys = new Set<string>();
  for (const model of datamodel.models) {
    for (const field of model.fields) {
      if (field.kind !== 'object' || !field.relationFromFields?.length) continue;
      const target = datamodel.models.find((candidate) => candidate.name === field.type)!;
      const onDelete = onDeleteSql[field.relationOnDelete ?? (field.isRequired ? 'Restrict' : 'SetNull')];
      const from = field.relationFromFields.map((name) => fieldColumn(model, name)).join(', ');
      const to = field.relationToFields!.map((name) => fieldColumn(target, name)).join(', ');
      expectedForeignKeys.add(
        `${tableOf(model)}: FOREIGN KEY (${from}) REFERENCES ${tableOf(target)}(${to}) ON UPDATE CASCADE${onDelete ? ` ON DELETE ${onDelete}` : ''}`,
      );
    }
  }
  const actualForeignKeys = new Set(database.foreignKeys.map((key) => `${key.table_name}: ${key.definition}`));
  for (const key of expectedForeignKeys) if (!actualForeignKeys.has(key)) drift.push(`foreign key ${key} is missing`);
  for (const key of actualForeignKeys)
    if (!expectedForeignKeys.has(key)) drift.push(`foreign key ${key} is not in schema.prisma`);

  return drift;
}
