export * from './js/tool-search';
export * from './js/tool-call-filter';
export * from './js/skill-search';
