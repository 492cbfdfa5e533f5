'use strict';
// What the model reads from SkillSearchProcessor: the system instruction, meta-tool
// descriptions and schemas, and the meta-tools' result messages, all the reference's.

const { perZod } = require('../host-modules.js');

const INSTRUCTION =
  'To discover available skills, call search_skills with a keyword query. ' +
  "To load a skill's instructions, call load_skill with the skill name. " +
  'Loaded skills provide context and instructions for the conversation.';

const SEARCH_DESCRIPTION =
  'Search for available skills by keyword. ' +
  'Returns a list of matching skills with their names and descriptions. ' +
  'After finding a useful skill, use load_skill to load its instructions.';

const LOAD_DESCRIPTION =
  "Load a skill's full instructions into the conversation. " +
  'Call this after finding a skill with search_skills. ' +
  "The skill's instructions will be available as context.";

// Schemas are immutable; build them once per zod instance (the reference builds identical
// ones per step). The zod and createTool are the ones the app's module system resolves
// (js/host-modules.js: the ESM entry binds the imported copies).
const schemasFor = perZod(z => ({
  searchInput: z.object({
    query: z
      .string()
      .trim()
      .min(1, 'Query is required')
      .describe('Search keywords (e.g., "api design", "testing", "deployment")'),
  }),
  searchOutput: z.object({
    results: z.array(
      z.object({
        name: z.string(),
        description: z.string(),
        score: z.number(),
      }),
    ),
    message: z.string(),
  }),
  loadInput: z.object({
    skillName: z.string().describe('The exact name of the skill to load (from search results)'),
  }),
  loadOutput: z.object({
    success: z.boolean(),
    message: z.string(),
    skillName: z.string().optional(),
  }),
}));

/** What 1.60+ hosts log (at warn level) when a step-0 refresh rejects. */
const REFRESH_FAILED = 'SkillSearchProcessor: skills refresh failed';

// search_skills results -----------------------------------------------------------------

function noSkillsFound(query) {
  return { results: [], message: `No skills found matching "${query}". Try different keywords.` };
}

/** `ranked`: `[{ name, description, score, ... }]`, best first. */
function foundSkills(ranked) {
  return {
    results: ranked.map(({ name, description, score }) => ({ name, description, score })),
    message: `Found ${ranked.length} skill(s). Use load_skill with the exact skill name to load its instructions.`,
  };
}

// load_skill results --------------------------------------------------------------------

function skillAlreadyLoaded(skillName) {
  return { success: true, message: `Skill "${skillName}" is already loaded.`, skillName };
}

/** `suggestions`: the "Did you mean" names (none: a pointer to search_skills instead). */
function skillNotFound(skillName, suggestions) {
  let message = `Skill "${skillName}" not found.`;
  if (suggestions.length > 0) {
    message += ` Did you mean: ${suggestions.join(', ')}?`;
  } else {
    message += ' Use search_skills to find available skills.';
  }
  return { success: false, message };
}

/** With a store that did not take the name. */
function skillUnavailable(skillName) {
  return {
    success: false,
    message: `Skill "${skillName}" could not be loaded right now (loaded-skill state is unavailable). Try again.`,
  };
}

function skillLoaded(skillName) {
  return {
    success: true,
    message: `Skill "${skillName}" loaded. Its instructions are now available as context.`,
    skillName,
  };
}

/** The system message that carries a loaded skill's instructions. */
function skillSystemMessage(skillName, instructions) {
  return `[Skill: ${skillName}]\n\n${instructions}`;
}

module.exports = {
  INSTRUCTION,
  SEARCH_DESCRIPTION,
  LOAD_DESCRIPTION,
  REFRESH_FAILED,
  schemasFor,
  noSkillsFound,
  foundSkills,
  skillAlreadyLoaded,
  skillNotFound,
  skillUnavailable,
  skillLoaded,
  skillSystemMessage,
};
