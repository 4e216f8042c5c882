// An NFT Activity webhook's filters on its detail page: the current `contract[,token id]` lines,
// and lines to add or remove, checked line by line before anything is sent.
import { LinesEditor } from './LinesEditor';
import { parseNftFilters } from './parseLines';

type Filter = { contract_address: string; token_id?: string };

const filterLine = (f: Filter) => (f.token_id === undefined ? f.contract_address : `${f.contract_address},${f.token_id}`);

const parse = (text: string) => {
  const { filters, bad } = parseNftFilters(text);
  return { items: filters, bad };
};

export function NftFilters({ webhookId }: { webhookId: string }) {
  return (
    <LinesEditor<Filter>
      webhookId={webhookId}
      id="nft"
      title="NFT filters"
      testId="nft-filters"
      empty="No filters: add a contract (and a token id, or none for all its tokens) below."
      addLabel={
        <>
          Add filters <span class="hint">(contract[,token id] per line; * for every contract)</span>
        </>
      }
      removeLabel="Remove filters"
      submitLabel="Update filters"
      listPath="/webhook-nft-filters"
      updatePath="/update-webhook-nft-filters"
      updateBody={(add, remove) => ({ nft_filters_to_add: add, nft_filters_to_remove: remove })}
      parse={parse}
      line={filterLine}
    />
  );
}
