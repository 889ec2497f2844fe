-- Agents' deposit addresses are BIP-32 children of DEPOSIT_XPUB at accounts.deposit_index; a sequence hands out
-- the indexes so concurrent registrations never share an address.
CREATE SEQUENCE "agent_deposit_index_seq" AS INTEGER MINVALUE 0 START WITH 0;
