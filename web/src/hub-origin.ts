// The one origin besides its own that the page may connect to: the Hugging Face Hub, for the config.json of a model
// the user names (hub.ts). vite.config.ts puts it in the Content-Security-Policy's connect-src from here, so the
// policy and the fetch cannot disagree.
export const HUB_ORIGIN = 'https://huggingface.co';
