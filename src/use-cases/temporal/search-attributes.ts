// Registration of the custom search attributes (workflows/contracts/search-attributes.ts). A server without them
// refuses every workflow start that sets them (INVALID_ARGUMENT), so each role checks at boot and registers the
// missing ones through the operator service; where that is not permitted, the start fails naming them and the command
// to run.
import { Connection } from '@temporalio/client';
import { type SearchAttributeType, TypedSearchAttributes } from '@temporalio/common';
// A CommonJS module whose exports Node cannot name statically: its default export holds the namespace.
import proto from '@temporalio/proto';
import { searchAttributeKeys } from '../../../workflows/contracts/search-attributes.ts';
import type { Logger } from '../../infra/logger.ts';
import { connectOptions, type TemporalTarget } from './connection.ts';
import { isTemporalUnreachable } from './unreachable.ts';

type IndexedValueType = proto.temporal.api.enums.v1.IndexedValueType;
const { IndexedValueType } = proto.temporal.api.enums.v1;

const indexedValueType = (type: SearchAttributeType) =>
  IndexedValueType[`INDEXED_VALUE_TYPE_${type}` as keyof typeof IndexedValueType] as IndexedValueType;

/** The operator service's form of the given attributes (all of them by default): name → indexed value type. */
export const searchAttributeTypes = (keys = searchAttributeKeys) =>
  Object.fromEntries(keys.map(({ name, type }) => [name, indexedValueType(type)]));

/** `temporal server start-dev` arguments that register every attribute when the dev server starts. */
export function devServerSearchAttributeArgs(): string[] {
  return searchAttributeKeys.flatMap(({ name, type }) => [
    '--search-attribute',
    `${name}=${TypedSearchAttributes.toMetadataType(type)}`,
  ]);
}

/** The commands an operator runs where this service may not register them itself. */
export const registrationCommands = (namespace: string, names: string[]) =>
  searchAttributeKeys
    .filter(({ name }) => names.includes(name))
    .map(
      ({ name, type }) =>
        `temporal operator search-attribute create --namespace ${namespace} --name ${name} --type ${TypedSearchAttributes.toMetadataType(type)}`,
    );

export class SearchAttributesMissingError extends Error {
  constructor(
    namespace: string,
    readonly missing: string[],
    cause: unknown,
  ) {
    super(
      `The Temporal namespace "${namespace}" lacks the search attributes ${missing.join(', ')}, and this service may not ` +
        `register them (${(cause as Error)?.message ?? cause}). Register them, then start again:\n  ` +
        registrationCommands(namespace, missing).join('\n  '),
    );
  }
}

/** The attributes the namespace lacks (or holds with another type); registers them. Throws what it cannot fix. */
export async function ensureSearchAttributes(connection: Connection, namespace: string): Promise<string[]> {
  const { customAttributes } = await connection.operatorService.listSearchAttributes({ namespace });
  const wrongType = searchAttributeKeys.filter(
    ({ name, type }) => customAttributes?.[name] !== undefined && customAttributes[name] !== indexedValueType(type),
  );
  if (wrongType.length > 0) {
    const names = wrongType.map(({ name, type }) => `${name} (must be ${TypedSearchAttributes.toMetadataType(type)})`);
    throw new Error(`The Temporal namespace "${namespace}" has search attributes of another type: ${names.join(', ')}`);
  }
  const missing = searchAttributeKeys.filter(({ name }) => customAttributes?.[name] === undefined);
  if (missing.length === 0) return [];
  try {
    await connection.operatorService.addSearchAttributes({
      namespace,
      searchAttributes: searchAttributeTypes(missing),
    });
  } catch (error) {
    throw new SearchAttributesMissingError(
      namespace,
      missing.map(({ name }) => name),
      error,
    );
  }
  return missing.map(({ name }) => name);
}

/**
 * The boot check. Temporal unreachable now is not fatal (the api comes up without it, the worker waits for it): the
 * check is skipped with a warning, and a start that then lacks an attribute fails like any other start.
 */
export async function checkSearchAttributes(temporal: TemporalTarget, logger: Logger): Promise<void> {
  const { namespace } = temporal;
  let connection: Connection;
  try {
    connection = await Connection.connect({ ...connectOptions(temporal), connectTimeout: 5_000 });
  } catch (error) {
    logger.warn({ err: error }, 'Temporal is unreachable: its search attributes were not checked');
    return;
  }
  try {
    const registered = await ensureSearchAttributes(connection, namespace);
    if (registered.length > 0) logger.info({ registered, namespace }, 'search attributes registered');
  } catch (error) {
    if (!isTemporalUnreachable(error)) throw error;
    logger.warn({ err: error }, 'Temporal is unreachable: its search attributes were not checked');
  } finally {
    await connection.close();
  }
}
