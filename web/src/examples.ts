// Where a newcomer starts: the page an empty link opens (a real model on a real GPU under membudget's method), and
// a few one-click examples of what people ask. Each is a link query through the engine's codec, so that what an
// example shows is exactly what its link reproduces (tests/browser/ux.test.ts checks every one computes).

export interface Example {
  id: string;
  label: string;
  query: string;
}

/** An empty link: Llama-3.1 8B fully sharded (FSDP2) over one node of 8 H100s with torchtitan. */
export const START: Example = {
  id: 'start',
  label: 'Llama-3.1 8B on 8 × H100, FSDP2 (torchtitan)',
  query: 'model=llama-3.1-8b&gpu=h100-80gb&method=membudget&framework=torchtitan&tp=1&dp=8&zero=3&seq=8192&mb=1&microbatches=1&ckpt=full',
};

export const EXAMPLES: readonly Example[] = [
  {
    id: 'pretrain-70b',
    label: '70B pre-training on 64 H100s',
    query: 'model=llama-3.1-70b&gpu=h100-80gb&method=membudget&tp=8&dp=8&zero=1&sp=true&seq=8192&mb=1&microbatches=16&ckpt=selective',
  },
  {
    id: 'qlora-70b',
    label: 'QLoRA of a 70B on one GPU',
    query:
      'model=llama-3.1-70b&gpu=h100-80gb&method=membudget&framework=torchtune&finetune=qlora&tp=1&dp=1&zero=0&seq=2048&mb=1&microbatches=8&ckpt=full',
  },
  {
    id: 'serve-moe',
    label: 'Serving Mixtral 8x7B (vLLM, 2 × H200)',
    query: 'model=mixtral-8x7b&gpu=h200&mode=inference&tp=2&dp=1&seq=8192&mb=64',
  },
  // The chapter's generic 70B on its generic 80 GB GPU (membudget's defaults, the CLI's default).
  { id: 'chapter', label: "The chapter's worked example", query: 'model=chapter-70b' },
];
