export * from './js/tool-call-filter';
export * from './js/skill-search';
